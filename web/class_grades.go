package web

import "leaselab/labs"

// Grades (issue 44): the lecturer's grades page, its settings and class
// list, and the course's answers the grades are decided with.

// grading is what a class's gradebook asks of the course the server
// serves: each right answer from the engine's run (labs.Grading).
func (s *Server) grading() labs.Grading {
	cur := s.course.get()
	if cur.course == nil {
		return labs.Grading{Course: &labs.Course{}}
	}
	return labs.Grading{Course: cur.course}
}
